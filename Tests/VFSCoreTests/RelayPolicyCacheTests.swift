import Foundation
import Glibc
import Testing
import VFSTestSupport
@testable import VFSCore

/// This device's copy of the organisation's policy on the relay, and the config that chooses it.
@Suite("relay policy copy")
struct RelayPolicyCacheTests {
    static let fetched = Date(timeIntervalSince1970: 1_900_000_000)

    final class Clock: @unchecked Sendable {
        // Sendable: set by the test between calls, read by the cache on the same thread.
        var now = RelayPolicyCacheTests.fetched
    }

    @Test("saved whole with mode 0600 in a 0700 folder, read back with its origin; answers for the grace, then denies policy-stale")
    func grace() throws {
        let folder = try TestFolder()
        let clock = Clock()
        let cache = RelayPolicyCache(path: folder.path("policy-cache/organisation.json"), now: { clock.now })
        // No copy: nothing approved, every request stale.
        #expect(try cache.load().items.isEmpty)
        let none = try cache.decide(PolicyRequest(app: "viewer"))
        #expect(PolicyDecisionTests.reason(none) == .policyStale)

        let viewer = PolicyDecisionTests.item("viewer", types: ["pdf"])
        let origin = RelayPolicyOrigin(url: "http://127.0.0.1:1", revision: "\"r3\"", fetched: Self.fetched, graceSeconds: 3600)
        try cache.save(PolicyDocument(items: [viewer]), origin: origin)
        var info = stat()
        #expect(stat(cache.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(folder.path("policy-cache"), &info) == 0 && info.st_mode & 0o777 == 0o700)
        let read = try #require(try cache.read())
        #expect(read.document.items == [viewer])
        #expect(read.origin == origin)

        let request = PolicyRequest(app: "viewer", fileType: "pdf")
        #expect(try cache.decide(request) == .allowed(itemID: viewer.id))
        clock.now = Self.fetched.addingTimeInterval(3599)
        #expect(try cache.decide(request) == .allowed(itemID: viewer.id))
        clock.now = Self.fetched.addingTimeInterval(3600)
        let stale = try cache.decide(request)
        #expect(PolicyDecisionTests.reason(stale) == .policyStale)
        if case .denied(let denial) = stale { #expect(denial.description.contains("1h")) }
        // Files of a bundle too.
        #expect(PolicyDecisionTests.reason(try cache.decide(files: ["a.pdf"], group: nil, app: "viewer")) == .policyStale)
        // A clock set back before the fetch does not stretch the grace.
        clock.now = Self.fetched.addingTimeInterval(-3600)
        #expect(PolicyDecisionTests.reason(try cache.decide(request)) == .policyStale)
        clock.now = Self.fetched.addingTimeInterval(-60)
        #expect(try cache.decide(request) == .allowed(itemID: viewer.id))
        // Listing reads the items whatever their age.
        #expect(try cache.load().items == [viewer])
    }

    @Test("a copy that does not parse or breaks a rule is corrupt (never an empty policy)")
    func corrupt() throws {
        let folder = try TestFolder()
        let cache = RelayPolicyCache(path: folder.path("organisation.json"))
        for text in ["", "{", #"{"version":1,"items":[]}"#, #"{"version":1,"items":[],"relay":{"url":"u","revision":"r","fetched":"2030-01-01T00:00:00Z","graceSeconds":1},"x":1}"#,
                     #"{"version":1,"items":[{"id":"a","app":"-bad","created":"2030-01-01T00:00:00Z","updated":"2030-01-01T00:00:00Z"}],"relay":{"url":"u","revision":"r","fetched":"2030-01-01T00:00:00Z","graceSeconds":1}}"#] {
            _ = try folder.write("organisation.json", text)
            #expect(throws: PolicyError.self, "\(text)") { try cache.snapshot() }
        }
    }

    @Test("config.json: policy.source file or relay, missing file is the default, anything else is an error")
    func config() throws {
        let folder = try TestFolder()
        let path = folder.path("config.json")
        #expect(try ToolConfig.load(path: path).policySource == .file)
        _ = try folder.write("config.json", #"{"policy": {"source": "relay"}}"#)
        #expect(try ToolConfig.load(path: path).policySource == .relay)
        _ = try folder.write("config.json", #"{}"#)
        #expect(try ToolConfig.load(path: path).policySource == .file)
        for bad in [#"{"policy": {"source": "cloud"}}"#, #"{"policy": {"sauce": "relay"}}"#, #"{"polcy": {}}"#, "relay"] {
            _ = try folder.write("config.json", bad)
            #expect(throws: PolicyError.self, "\(bad)") { try ToolConfig.load(path: path) }
        }
        #expect(try VFSPaths(environment: ["VFS_HOME": "/v"]).toolConfig == "/v/config.json")
    }

    @Test("the test clock: VFS_TEST_NOW only with VFS_TEST_HOOKS=1")
    func testClock() {
        let at = "2030-01-01T00:00:00Z"
        #expect(TestClock.now(VFSPaths(environment: ["VFS_TEST_HOOKS": "1", "VFS_TEST_NOW": at])) == PolicyDates.parseTime(at))
        #expect(TestClock.now(VFSPaths(environment: ["VFS_TEST_NOW": at])) != PolicyDates.parseTime(at))
    }
}
