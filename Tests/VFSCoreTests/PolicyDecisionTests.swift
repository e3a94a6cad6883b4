import Foundation
import Testing
import VFSPolicyModel
@testable import VFSCore

@Suite("policy decision")
struct PolicyDecisionTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func item(_ app: String, id: String = "0000aaaa", groups: [String] = [], types: [String] = [],
                     expires: Date? = nil, enabled: Bool = true) -> PolicyItem {
        PolicyItem(id: id, app: app, name: "", groups: groups, types: types, expires: expires,
                   enabled: enabled, created: t0, updated: t0)
    }

    static func reason(_ decision: PolicyDecision) -> PolicyDenial.Reason? {
        if case let .denied(denial) = decision { return denial.reason }
        return nil
    }

    @Test("default deny: an empty policy approves nothing")
    func defaultDeny() {
        let decision = PolicyDocument().decide(PolicyRequest(app: "evince", group: "g", fileType: "pdf"))
        #expect(!decision.isAllowed)
        guard case let .denied(denial) = decision else { Issue.record("allowed"); return }
        #expect(denial.reason == .notApproved)
        #expect(denial.app == "evince")
        #expect(denial.itemID == nil)
        #expect(denial.description == "\"evince\" is not an approved app")
    }

    @Test("an item with no groups and no types allows anything, with or without group and type")
    func openItem() {
        let doc = PolicyDocument(items: [Self.item("evince", id: "12345678")])
        #expect(doc.decide(PolicyRequest(app: "evince")) == .allowed(itemID: "12345678"))
        #expect(doc.decide(PolicyRequest(app: "evince", group: "finance", fileType: "exe")) == .allowed(itemID: "12345678"))
        #expect(Self.reason(doc.decide(PolicyRequest(app: "Evince"))) == .notApproved)
        #expect(Self.reason(doc.decide(PolicyRequest(app: "okular"))) == .notApproved)
    }

    @Test("disabled denies, before any other reason")
    func disabled() {
        let doc = PolicyDocument(items: [Self.item("evince", groups: ["a"], expires: Self.t0, enabled: false)])
        guard case let .denied(denial) = doc.decide(PolicyRequest(app: "evince", group: "b", date: Self.t0 + 10)) else {
            Issue.record("allowed"); return
        }
        #expect(denial.reason == .disabled)
        #expect(denial.itemID == "0000aaaa")
        #expect(denial.description == "\"evince\" is approved but disabled")
    }

    @Test("expiry: allowed one second before the instant, denied at it and after")
    func expiryBoundary() {
        let expires = Self.t0
        let doc = PolicyDocument(items: [Self.item("evince", expires: expires)])
        #expect(doc.decide(PolicyRequest(app: "evince", date: expires - 1)).isAllowed)
        #expect(doc.decide(PolicyRequest(app: "evince", date: expires - 0.001)).isAllowed)
        #expect(Self.reason(doc.decide(PolicyRequest(app: "evince", date: expires))) == .expired)
        #expect(Self.reason(doc.decide(PolicyRequest(app: "evince", date: expires + 1))) == .expired)
        if case let .denied(denial) = doc.decide(PolicyRequest(app: "evince", date: expires)) {
            #expect(denial.description == "the approval of \"evince\" expired at 2027-01-15T08:00:00Z")
        }
    }

    @Test("groups: listed group allowed, other group and no group denied")
    func groups() {
        let doc = PolicyDocument(items: [Self.item("viewer", groups: ["finance", "legal"])])
        #expect(doc.decide(PolicyRequest(app: "viewer", group: "legal")).isAllowed)
        guard case let .denied(other) = doc.decide(PolicyRequest(app: "viewer", group: "hr")),
              case let .denied(none) = doc.decide(PolicyRequest(app: "viewer")) else { Issue.record("allowed"); return }
        #expect(other.reason == .groupNotAllowed)
        #expect(other.description == "\"viewer\" may not receive files of group \"hr\"")
        #expect(none.reason == .groupNotAllowed)
        #expect(none.description == "\"viewer\" may receive files of groups \"finance\", \"legal\" only, and the file has no group")
    }

    @Test("types: compared lowercased without a dot; other and missing types denied")
    func types() {
        let doc = PolicyDocument(items: [Self.item("viewer", types: ["pdf"])])
        #expect(doc.decide(PolicyRequest(app: "viewer", fileType: "pdf")).isAllowed)
        #expect(doc.decide(PolicyRequest(app: "viewer", fileType: "PDF")).isAllowed)
        #expect(doc.decide(PolicyRequest(app: "viewer", fileType: ".pdf")).isAllowed)
        guard case let .denied(exe) = doc.decide(PolicyRequest(app: "viewer", fileType: "exe")) else { Issue.record("allowed"); return }
        #expect(exe.reason == .typeNotAllowed)
        #expect(exe.description == "\"viewer\" may not receive files of type \"exe\"")
        #expect(Self.reason(doc.decide(PolicyRequest(app: "viewer"))) == .typeNotAllowed)
    }

    @Test("groups and types together: both must match; the group is checked first")
    func groupsAndTypes() {
        let doc = PolicyDocument(items: [Self.item("viewer", groups: ["finance"], types: ["pdf", "txt"])])
        #expect(doc.decide(PolicyRequest(app: "viewer", group: "finance", fileType: "txt")).isAllowed)
        #expect(Self.reason(doc.decide(PolicyRequest(app: "viewer", group: "finance", fileType: "exe"))) == .typeNotAllowed)
        #expect(Self.reason(doc.decide(PolicyRequest(app: "viewer", group: "hr", fileType: "pdf"))) == .groupNotAllowed)
        #expect(Self.reason(doc.decide(PolicyRequest(app: "viewer", group: "hr", fileType: "exe"))) == .groupNotAllowed)
    }

    @Test("file type of a path: last extension, lowercased; none for dotfiles and bare names")
    func fileTypeOfPath() {
        #expect(PolicyRequest.fileType(ofPath: "report.PDF") == "pdf")
        #expect(PolicyRequest.fileType(ofPath: "archive.tar.gz") == "gz")
        #expect(PolicyRequest.fileType(ofPath: "README") == nil)
        #expect(PolicyRequest.fileType(ofPath: "/home/a/docs.d/README") == nil)
        #expect(PolicyRequest.fileType(ofPath: "/home/a/.bashrc") == nil)
        #expect(PolicyRequest.fileType(ofPath: "notes.") == nil)
        #expect(PolicyRequest.fileType(ofPath: "dir/x.Md") == "md")
    }

    @Test("denial reasons have stable JSON names")
    func reasonNames() {
        #expect(PolicyDenial.Reason.allCases.map(\.rawValue) == ["not-approved", "disabled", "expired", "group-not-allowed", "type-not-allowed", "policy-stale"])
    }
}

@Suite("policy dates")
struct PolicyDatesTests {
    @Test("a date alone expires at the next midnight UTC; a time is the instant itself")
    func expiryForms() throws {
        #expect(PolicyDates.format(try PolicyDates.parseExpiry("2027-01-31")) == "2027-02-01T00:00:00Z")
        // One meaning with the admin web page's date field (AdminPageTests.expiryDateMeaning).
        #expect(try PolicyDates.parseExpiry("2027-01-31") == RFC3339.expiry(ofDay: "2027-01-31"))
        #expect(PolicyDates.displayExpiry(try PolicyDates.parseExpiry("2027-01-31")) == "2027-01-31")
        #expect(RFC3339.expiry(ofDay: "2027-01-31T00:00:00Z") == nil && RFC3339.expiry(ofDay: "2027-02-30") == nil)
        #expect(PolicyDates.format(try PolicyDates.parseExpiry("2028-02-29")) == "2028-03-01T00:00:00Z")
        #expect(PolicyDates.format(try PolicyDates.parseExpiry("2027-12-31")) == "2028-01-01T00:00:00Z")
        #expect(PolicyDates.format(try PolicyDates.parseExpiry("2027-01-31T17:00:00Z")) == "2027-01-31T17:00:00Z")
        #expect(PolicyDates.format(try PolicyDates.parseExpiry("2027-01-31T17:00+02:00")) == "2027-01-31T15:00:00Z")
        #expect(PolicyDates.format(try PolicyDates.parseExpiry("2027-01-31T17:00:05.75-01:30")) == "2027-01-31T18:30:05Z")
        let now = Date(timeIntervalSince1970: 1_800_000_000.6)
        #expect(try PolicyDates.parseExpiry("90d", now: now) == Date(timeIntervalSince1970: 1_800_000_000 + 90 * 86400))
    }

    @Test("bad dates and times are rejected", arguments: [
        "", "2027-1-31", "2027-02-30", "2027-13-01", "2027-01-31T25:00:00Z", "2027-01-31T10:00:00",
        "2027-01-31 10:00:00Z", "31.01.2027", "tomorrow", "2027-01-31T10:00:00+0200", "2027-01-31Z", "-5d",
    ])
    func rejected(text: String) {
        #expect(throws: PolicyDates.ParseError.self) { try PolicyDates.parseExpiry(text) }
    }

    @Test("--at takes full times only")
    func instants() throws {
        #expect(PolicyDates.format(try PolicyDates.parseInstant("2027-02-01T00:00:00Z")) == "2027-02-01T00:00:00Z")
        #expect(throws: PolicyDates.ParseError.self) { try PolicyDates.parseInstant("2027-02-01") }
    }
}
