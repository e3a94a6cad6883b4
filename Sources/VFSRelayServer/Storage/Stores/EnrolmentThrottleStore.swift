import Foundation

/// The enrolment throttle, shared by every instance on one database: wrong codes per
/// address, and the lockout at the limit.
extension SQLRelayStore {
    public func enrolmentWait(address: String, now: Date) async throws -> Int? {
        try await sql.database.write { db in
            guard let until = try await db.value("SELECT until FROM enrolment_failures WHERE address = \(address)",
                                                 as: Double.self) else { return nil }
            if until <= now.timeIntervalSince1970 {
                try await db.run("DELETE FROM enrolment_failures WHERE address = \(address) AND until <= \(now)")
                return nil
            }
            return Int((until - now.timeIntervalSince1970).rounded(.up))
        }
    }

    public func enrolmentFailed(address: String, limit: Int, lockout: TimeInterval, now: Date) async throws {
        let until = now.addingTimeInterval(lockout)
        try await sql.database.write { db in
            try await db.run("""
                INSERT INTO enrolment_failures AS f(address, failures, until)
                VALUES (\(address), 1, CASE WHEN 1 >= \(limit) THEN \(until) END)
                ON CONFLICT (address) DO UPDATE SET failures = f.failures + 1,
                  until = CASE WHEN f.failures + 1 >= \(limit) THEN \(until) ELSE f.until END
                """)
        }
    }

    public func enrolmentSucceeded(address: String) async throws {
        try await sql.database.write { db in try await db.run("DELETE FROM enrolment_failures WHERE address = \(address)") }
    }
}
