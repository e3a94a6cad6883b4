import Foundation
import VFSRelayProtocol

/// The organisation's screens: devices and groups, the outbox, the audit log.
extension AdminPages {
    /// `history`: each user's cloud versions and trash (issue 50), by user id.
    static func devices(_ members: [OrganisationMember], history: [Int64: CloudHistorySummary], signedIn: SignedIn,
                        notice: String?) -> HTML {
        let names = Dictionary(members.flatMap(\.devices).map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let users = members.map { member -> HTML in
            let groups = member.groups.map { group -> HTML in
                "<li>\(group.name): \(group.members.map { names[$0] ?? $0 }.joined(separator: ", "))</li>"
            }
            let cloud = history[member.id].map { kept in
                "\(kept.versions) earlier version\(kept.versions == 1 ? "" : "s") (\(bytes(kept.bytes))), \(kept.trash) in the trash"
            } ?? "no earlier versions"
            return """
                <tr><th scope="row">\(member.email)</th><td>\(member.role)</td>\
                <td>\(member.devices.filter { $0.invalidated == nil }.count)</td>\
                <td>\(groups.isEmpty ? "none" : "<ul>\(groups)</ul>" as HTML)</td><td>\(cloud)</td></tr>
                """
        }
        let devices = members.flatMap { member in member.devices.map { (member.email, $0) } }.map { email, device -> HTML in
            let state: HTML = device.invalidated == nil
                ? "active</td><td><a href=\"/admin/devices/\(device.id)/revoke\" aria-label=\"Revoke \(device.name)\">Revoke</a>"
                : "revoked \(time(device.invalidated))</td><td>"
            return """
                <tr><th scope="row">\(device.name)</th><td>\(email)</td><td>\(device.platform)</td>\
                <td><code>\(device.id)</code></td><td>\(time(device.created))</td><td>\(time(device.lastSeen))</td>\
                <td>\(state)</td></tr>
                """
        }
        return layout("Devices and groups", signedIn, current: "/admin/devices", """
            \(Self.notice(notice))
            <table id="devices"><caption>Devices</caption>
            <thead><tr><th scope="col">Device</th><th scope="col">User</th><th scope="col">Platform</th><th scope="col">Id</th>\
            <th scope="col">Enrolled</th><th scope="col">Last seen</th><th scope="col">State</th><th scope="col"><span class="hidden">Actions</span></th></tr></thead>
            <tbody>\(devices)</tbody></table>
            <table id="users"><caption>Users and their device groups</caption>
            <thead><tr><th scope="col">User</th><th scope="col">Role</th><th scope="col">Active devices</th><th scope="col">Groups</th>\
            <th scope="col">Cloud versions kept</th></tr></thead>
            <tbody>\(users)</tbody></table>
            """)
    }

    static func confirmRevoke(_ device: Device, owner: String, signedIn: SignedIn) -> HTML {
        layout("Revoke \(device.name)?", signedIn, current: "/admin/devices", """
            <p>\(device.name) (\(owner), <code>\(device.id)</code>) will be logged out at once: its token stops working, \
            its event stream is told, and transfers waiting for it expire. This cannot be undone; the device must enrol again.</p>
            <form method="post" action="/admin/devices/\(device.id)/revoke">\(csrfField(signedIn))
            <p><button type="submit" class="danger">Revoke \(device.name)</button> <a href="/admin/devices">Cancel</a></p></form>
            """)
    }

    /// The organisation's groups of people: each with its members (a remove button each)
    /// and a form to add one (the organisation's addresses offered), and a form for a new group.
    static func orgGroups(_ groups: [OrgGroup], users: [String], signedIn: SignedIn, notice: String?, problem: String?) -> HTML {
        let sections = groups.map { group -> HTML in
            let members = group.members.map { email -> HTML in
                """
                <li>\(email) <form class="inline" method="post" action="/admin/groups/\(group.name)/members/remove">\(csrfField(signedIn))\
                <input type="hidden" name="email" value="\(email)">\
                <button type="submit" aria-label="Remove \(email) from \(group.name)">Remove</button></form></li>
                """
            }
            return """
                <section id="group-\(group.name)"><h2>\(group.name)</h2>
                \(group.members.isEmpty ? "<p>No members yet.</p>" : "<ul>\(members)</ul>" as HTML)
                <form method="post" action="/admin/groups/\(group.name)/members">\(csrfField(signedIn))
                <p><label for="add-\(group.name)">Add a member to \(group.name)</label>
                <input id="add-\(group.name)" name="email" type="email" list="org-users" required spellcheck="false">
                <button type="submit">Add</button></p></form></section>
                """
        }
        let options = users.map { email -> HTML in "<option value=\"\(email)\"></option>" }
        return layout("Groups of people", signedIn, current: "/admin/groups", """
            \(alert(problem))\(Self.notice(notice))
            <p>Groups of the organisation's people: <code>vfs-push --to-group NAME</code> sends to every member, each through \
            their own verified device chain. A group is visible to its members.</p>
            \(groups.isEmpty ? "<p>No groups yet.</p>" : "" as HTML)\(sections)
            <datalist id="org-users">\(options)</datalist>
            <h2>New group</h2>
            <form method="post" action="/admin/groups">\(csrfField(signedIn))
            <p><label for="name">Name</label> <input id="name" name="name" required pattern="[A-Za-z0-9._-]{1,64}" spellcheck="false">
            <button type="submit">Create</button></p></form>
            """)
    }

    static func transfers(_ transfers: [TransferOverview], members: [OrganisationMember], signedIn: SignedIn) -> HTML {
        let names = Dictionary(members.flatMap(\.devices).map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let rows = transfers.map { transfer -> HTML in
            let copies = transfer.recipients.map { copy -> HTML in
                "<li>\(names[copy.device] ?? copy.device): \(copy.status.rawValue) (\(time(copy.updated)))</li>"
            }
            return """
                <tr><th scope="row"><code>\(transfer.id)</code></th><td>\(names[transfer.senderDevice] ?? transfer.senderDevice)</td>\
                <td>\(bytes(transfer.size))</td><td>\(time(transfer.created))</td><td>\(time(transfer.expires))</td>\
                <td><ul>\(copies)</ul></td></tr>
                """
        }
        return layout("Outbox", signedIn, current: "/admin/transfers", """
            <p>Transfers sent by the organisation's devices with a copy still waiting. The relay holds ciphertext \
            only; it knows no file names or content.</p>
            <table id="transfers"><caption>Transfers in flight: \(transfers.count)</caption>
            <thead><tr><th scope="col">Transfer</th><th scope="col">From</th><th scope="col">Size</th><th scope="col">Sent</th>\
            <th scope="col">Expires</th><th scope="col">Per device</th></tr></thead>
            <tbody>\(rows)</tbody></table>
            """)
    }

    /// The organisation's share links and file requests: who made each, its size, times and
    /// use, and a revoke button for each one still live.
    static func links(_ links: [LinkOverview], members: [OrganisationMember], signedIn: SignedIn, notice: String?) -> HTML {
        let names = Dictionary(members.flatMap(\.devices).map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let rows = links.map { link -> HTML in
            let use = "\(link.used)" + (link.limit.map { " of \($0)" } ?? "")
            let action: HTML = link.state == "live" ? """
                <form class="inline" method="post" action="/admin/links/\(link.id)/revoke">\(csrfField(signedIn))\
                <button type="submit" class="danger" aria-label="Revoke \(link.kind.rawValue) \(link.id)">Revoke</button></form>
                """ : ""
            return """
                <tr><th scope="row"><code>\(link.id)</code></th><td>\(link.kind.rawValue)</td>\
                <td>\(link.owner) (\(names[link.device] ?? link.device))</td><td>\(bytes(link.size))</td>\
                <td>\(time(link.created))</td><td>\(time(link.expires))</td><td>\(use)</td><td>\(link.state)</td><td>\(action)</td></tr>
                """
        }
        return layout("Links", signedIn, current: "/admin/links", """
            \(Self.notice(notice))
            <p>Share links and file requests made by the organisation's users. The relay holds ciphertext only; a link's key \
            is in its fragment, which never reaches the relay. Revoking one makes its next use answer 410 and releases what it holds. \
            What links may do is set with <code>vfs-relay org set --links</code>.</p>
            <table id="links"><caption>Links and file requests: \(links.count)</caption>
            <thead><tr><th scope="col">Id</th><th scope="col">Kind</th><th scope="col">Made by</th><th scope="col">Size</th>\
            <th scope="col">Made</th><th scope="col">Expires</th><th scope="col">Downloads or files</th><th scope="col">State</th>\
            <th scope="col"><span class="hidden">Actions</span></th></tr></thead>
            <tbody>\(rows)</tbody></table>
            """)
    }

    /// An audit detail as a person reads it: an item's JSON keeps its times as seconds
    /// since 1970 (what the store writes); `created`, `updated` and `expires` are shown as
    /// dates. Anything else is shown as it is.
    static func readableDetail(_ detail: String) -> String {
        guard detail.hasPrefix("{"), let object = try? JSONSerialization.jsonObject(with: Data(detail.utf8)) as? [String: Any] else {
            return detail
        }
        var readable = object
        for key in ["created", "updated", "expires"] {
            if let seconds = object[key] as? Double { readable[key] = time(Date(timeIntervalSince1970: seconds)) }
        }
        guard let data = try? JSONSerialization.data(withJSONObject: readable, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return detail
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func audit(_ entries: [AuditEntry], filter: String, limit: Int, signedIn: SignedIn) -> HTML {
        let rows = entries.map { entry -> HTML in
            """
            <tr><td>\(time(entry.at))</td><td>\(entry.actor)</td><td>\(entry.action)</td><td>\(entry.subject)</td>\
            <td class="detail">\(readableDetail(entry.detail))</td></tr>
            """
        }
        return layout("Audit log", signedIn, current: "/admin/audit", """
            <form class="filter" method="get" action="/admin/audit" role="search">
            <label for="q">Filter</label> <input id="q" name="q" type="search" value="\(filter)">
            <button type="submit">Apply</button></form>
            <table id="audit"><caption>Entries, newest first: \(entries.count) (at most \(limit))</caption>
            <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Subject</th>\
            <th scope="col">Detail</th></tr></thead>
            <tbody>\(rows)</tbody></table>
            """)
    }
}
