import Foundation
import VFSRelayServer

/// Makes a new one-time enrolment code for a user and prints it with its expiry.
func issueEnrolmentCode(store: any RelayStore, data: DataOptions, email: String, lifetime: TimeInterval) async throws {
    let now = Date()
    let code = RelayCodes.newEnrolmentCode()
    let expires = now.addingTimeInterval(lifetime)
    try await store.createEnrolmentCode(email: email, codeHash: RelayCodes.hash(enrolmentCode: code), expires: expires, now: now)
    print(code)
    let formatter = ISO8601DateFormatter()
    data.report("enrolment code for \(email), single use, valid until \(formatter.string(from: expires))")
}
