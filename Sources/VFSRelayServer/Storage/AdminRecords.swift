import Foundation
import VFSRelayProtocol

/// A signed-in administrator of the web page (`/admin/`): the session a cookie names.
public struct AdminSession: Decodable, Sendable, Equatable {
    public var userID: Int64
    var orgID: Int64
    public var email: String
    public var expires: Date

    /// The identity item writes record (the actor is the admin's email, as for a device).
    var identity: DeviceIdentity {
        DeviceIdentity(deviceID: "web", userID: userID, orgID: orgID, email: email, isAdmin: true)
    }
}

/// A user of an organisation with their devices (logged-out ones too) and device groups.
/// A user's cloud history in numbers (issue 50): the earlier versions kept, the bytes of
/// the blobs only they hold (what the quota counts for them), the removed files in the trash.
public struct CloudHistorySummary: Sendable, Equatable {
    public var versions: Int
    public var bytes: Int64
    public var trash: Int
}

public struct OrganisationMember: Sendable, Equatable {
    public var id: Int64
    public var email: String
    public var role: String
    public var devices: [Device]
    public var groups: [DeviceGroup]
}

/// A transfer of an organisation's device with at least one copy still waiting: sizes,
/// times and statuses only (the relay knows no names or content).
public struct TransferOverview: Sendable, Equatable {
    public var id: String
    var senderDevice: String
    public var size: Int64
    public var created: Date
    public var expires: Date
    public var recipients: [TransferRecipient]
}

/// One line of the audit log.
public struct AuditEntry: Decodable, Sendable, Equatable {
    public var id: Int64
    public var at: Date
    public var actor: String
    public var action: String
    public var subject: String
    public var detail: String
}
