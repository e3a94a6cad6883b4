import Foundation
import VFSPolicyModel
import VFSRelayProtocol

/// The approved-apps screens: the sortable, filterable table and the item form.
extension AdminPages {
    enum ItemColumn: String, CaseIterable {
        case app, name, groups, types, expires, enabled, status
        var title: String {
            switch self {
            case .app: "App"
            case .name: "Name"
            case .groups: "Groups"
            case .types: "File types"
            case .expires: "Expires"
            case .enabled: "Enabled"
            case .status: "Status"
            }
        }
    }

    /// What the table shows: which column sorts, which way, and the filters.
    struct ItemQuery {
        var sort: ItemColumn = .app
        var descending = false
        var text = ""
        var status = ""

        init(_ parameters: [String: String]) {
            sort = parameters["sort"].flatMap(ItemColumn.init(rawValue:)) ?? .app
            descending = parameters["order"] == "desc"
            text = parameters["q"] ?? ""
            status = ["active", "disabled", "expired"].contains(parameters["status"] ?? "") ? parameters["status"]! : ""
        }

        func link(sortingBy column: ItemColumn) -> String {
            var parts = ["sort=\(column.rawValue)", "order=\(column == sort && !descending ? "desc" : "asc")"]
            if !text.isEmpty { parts.append("q=" + (text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")) }
            if !status.isEmpty { parts.append("status=\(status)") }
            return "/admin/items?" + parts.joined(separator: "&")
        }
    }

    static func status(_ item: PolicyItem, now: Date) -> String {
        if !item.enabled { return "disabled" }
        if let expires = item.expires, expires <= now { return "expired" }
        return "active"
    }

    static func sortKey(_ item: PolicyItem, _ column: ItemColumn, now: Date) -> String {
        switch column {
        case .app: item.app.lowercased()
        case .name: item.name.lowercased()
        case .groups: item.groups.joined(separator: ",")
        case .types: item.types.joined(separator: ",")
        case .expires: item.expires.map { String(format: "%020.0f", $0.timeIntervalSince1970) } ?? "~"
        case .enabled: item.enabled ? "1" : "0"
        case .status: status(item, now: now)
        }
    }

    static func filtered(_ items: [VersionedItem], _ query: ItemQuery, now: Date) -> [VersionedItem] {
        let needle = query.text.lowercased().trimmingCharacters(in: .whitespaces)
        let kept = items.filter { entry in
            let item = entry.item
            if !query.status.isEmpty, status(item, now: now) != query.status { return false }
            if needle.isEmpty { return true }
            return ([item.app, item.name, item.id] + item.groups + item.types).contains { $0.lowercased().contains(needle) }
        }
        let sorted = kept.sorted {
            let a = sortKey($0.item, query.sort, now: now), b = sortKey($1.item, query.sort, now: now)
            return a == b ? $0.item.app < $1.item.app : a < b
        }
        return query.descending ? sorted.reversed() : sorted
    }

    static func items(_ items: [VersionedItem], query: ItemQuery, signedIn: SignedIn, notice: String?, now: Date) -> HTML {
        let shown = filtered(items, query, now: now)
        let headers = ItemColumn.allCases.map { column -> HTML in
            let sort: HTML = column == query.sort ? " aria-sort=\"\(query.descending ? "descending" : "ascending")\"" : ""
            return "<th scope=\"col\"\(sort)><a href=\"\(query.link(sortingBy: column))\">\(column.title)</a></th>"
        }
        let rows = shown.map { entry -> HTML in
            let item = entry.item
            return """
                <tr><th scope="row">\(item.app)</th><td>\(item.name)</td><td>\(item.groups.joined(separator: ", "))</td>\
                <td>\(item.types.joined(separator: ", "))</td><td>\(expiry(item.expires))</td>\
                <td>\(item.enabled ? "yes" : "no")</td><td>\(status(item, now: now))</td>\
                <td><a href="/admin/items/\(item.id)/edit" aria-label="Edit \(item.app)">Edit</a></td></tr>
                """
        }
        let statusOptions = [("", "any status"), ("active", "active"), ("disabled", "disabled"), ("expired", "expired")].map {
            option -> HTML in
            "<option value=\"\(option.0)\"\(HTML.when(option.0 == query.status, " selected"))>\(option.1)</option>"
        }
        return layout("Approved apps", signedIn, current: "/admin/items", """
            \(Self.notice(notice))
            <p><a class="button" href="/admin/items/new">Add an app</a></p>
            <form class="filter" method="get" action="/admin/items" role="search">
            <input type="hidden" name="sort" value="\(query.sort.rawValue)"><input type="hidden" name="order" value="\(query.descending ? "desc" : "asc")">
            <label for="q">Filter</label> <input id="q" name="q" type="search" value="\(query.text)">
            <label for="status">Status</label> <select id="status" name="status">\(statusOptions)</select>
            <button type="submit">Apply</button></form>
            <table id="items"><caption>\(shown.count) of \(items.count) approved apps</caption>
            <thead><tr>\(headers)<th scope="col"><span class="hidden">Actions</span></th></tr></thead>
            <tbody>\(rows)</tbody></table>
            """)
    }

    /// The add or edit form. `values` are what to show (the stored item, or what the
    /// admin typed when the server refused it); `version` is what the edit is based on.
    struct ItemForm {
        var id: String?
        var version: Int64?
        var app = ""
        var name = ""
        var groups = ""
        var types = ""
        var expires = ""
        var enabled = true

        init(id: String? = nil) { self.id = id }

        init(_ entry: VersionedItem) {
            id = entry.item.id
            version = entry.version
            app = entry.item.app
            name = entry.item.name
            groups = entry.item.groups.joined(separator: ", ")
            types = entry.item.types.joined(separator: ", ")
            expires = AdminPages.expiryField(entry.item.expires)
            enabled = entry.item.enabled
        }
    }

    static func versionField(_ version: Int64?) -> HTML {
        guard let version else { return "" }
        return "<input type=\"hidden\" name=\"version\" value=\"\(version)\">"
    }

    static func itemForm(_ form: ItemForm, signedIn: SignedIn, message: String?, conflict: VersionedItem? = nil) -> HTML {
        let title = form.id == nil ? "Add an app" : "Edit \(form.app)"
        let action = form.id.map { "/admin/items/\($0)" } ?? "/admin/items"
        var current: HTML = ""
        if let conflict {
            let item = conflict.item
            current = """
                <section aria-labelledby="current"><h2 id="current">What is stored now</h2>
                <dl class="current"><dt>App</dt><dd>\(item.app)</dd><dt>Name</dt><dd>\(item.name)</dd>\
                <dt>Groups</dt><dd>\(item.groups.joined(separator: ", "))</dd><dt>File types</dt><dd>\(item.types.joined(separator: ", "))</dd>\
                <dt>Expires</dt><dd>\(expiry(item.expires))</dd><dt>Enabled</dt><dd>\(item.enabled ? "yes" : "no")</dd>\
                <dt>Last changed</dt><dd>\(time(item.updated))</dd></dl>
                <p>Your changes below were not saved. Save again to replace the stored version with yours, or <a href="/admin/items/\(item.id)/edit">start over from it</a>.</p></section>
                """
        }
        var removal: HTML = ""
        if let id = form.id, let version = form.version, conflict == nil {
            removal = """
                <form class="danger" method="post" action="/admin/items/\(id)/delete">\(csrfField(signedIn))\
                <input type="hidden" name="version" value="\(version)">
                <p><button type="submit">Delete \(form.app)</button></p></form>
                """
        }
        return layout(title, signedIn, current: "/admin/items", """
            \(alert(message))\(current)
            <form method="post" action="\(action)" novalidate>\(csrfField(signedIn))
            \(versionField(form.version))
            <p><label for="app">App</label> <input id="app" name="app" value="\(form.app)" required aria-describedby="app-help">
            <span id="app-help" class="help">A command name (evince) or a reverse-DNS id (com.example.viewer).</span></p>
            <p><label for="name">Name</label> <input id="name" name="name" value="\(form.name)"></p>
            <p><label for="groups">Groups</label> <input id="groups" name="groups" value="\(form.groups)" aria-describedby="groups-help">
            <span id="groups-help" class="help">Comma-separated; empty means any group.</span></p>
            <p><label for="types">File types</label> <input id="types" name="types" value="\(form.types)" aria-describedby="types-help">
            <span id="types-help" class="help">Lowercase extensions without the dot, comma-separated; empty means any.</span></p>
            <p><label for="expires">Expires (UTC)</label> <input id="expires" name="expires" type="date" value="\(form.expires)" aria-describedby="expires-help">
            <span id="expires-help" class="help">The last day it is approved: it expires at the end of that day (UTC), as vfs-policy --expires DATE means it; empty never expires.</span></p>
            <p><input id="enabled" name="enabled" type="checkbox" value="on"\(HTML.when(form.enabled, " checked"))> <label for="enabled">Enabled</label></p>
            <p><button type="submit">\(form.id == nil ? "Add" : "Save")</button> <a href="/admin/items">Cancel</a></p>
            </form>
            \(removal)
            """)
    }
}
