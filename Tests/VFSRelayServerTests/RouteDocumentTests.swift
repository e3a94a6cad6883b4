import Foundation
import Hummingbird
import Logging
import Prometheus
import Testing
import VFSRelayProtocol
@testable import VFSRelayServer

/// The router and the OpenAPI document name the same operations: a route added without
/// its description, or a description of a route that is gone, fails here (issue 25).
@Suite("relay routes against openapi.yaml")
struct RouteDocumentTests {
    /// `METHOD /path` for every operation of the document, paths as written there.
    static func documented() throws -> Set<String> {
        let document = String(decoding: PackageResources.openapi_yaml, as: UTF8.self)
        var operations = Set<String>()
        var path: String?
        var inPaths = false
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") && !line.isEmpty { inPaths = line == "paths:"; path = nil; continue }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), !line.hasPrefix("   "), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let key = line.trimmingCharacters(in: .whitespaces).dropLast()
                if ["get", "put", "post", "delete", "patch", "head", "options"].contains(key) {
                    operations.insert("\(key.uppercased()) \(path)")
                }
            }
        }
        return operations
    }

    /// `METHOD /path` for every route of the router, its parameters written as the
    /// document writes them (`:id` → `{id}`, the cloud's `**` → `{path}`).
    static func routed(metrics: Bool) throws -> Set<String> {
        let fixture = try RelayFixture { if metrics { $0.metrics = PrometheusCollectorRegistry() } }
        let router = buildRouter(store: fixture.store, blobs: fixture.blobs, hub: fixture.hub,
                                 configuration: fixture.configuration, logger: Logger(label: "routes"))
        return Set(router.routes.map { route in
            let path = route.path.description.split(separator: "/", omittingEmptySubsequences: false).map { part -> String in
                if part == "**" { return "{path}" }
                if part.hasPrefix(":") { return "{\(part.dropFirst())}" }
                return String(part)
            }.joined(separator: "/")
            return "\(route.method.rawValue) \(path)"
        })
    }

    @Test("every API route is documented and every documented operation is routed")
    func sameOperations() throws {
        let documented = try Self.documented()
        #expect(documented.count > 30, "the document was read: \(documented.count) operations")
        // The admin web page (HTML for browsers, its own session cookie; `/` sends a browser
        // there) and the operator's /metrics (Prometheus text, off unless --metrics) are not
        // part of the device API.
        let api = try Self.routed(metrics: true).filter { !$0.contains(" /admin") && !$0.hasSuffix(" /metrics") && $0 != "GET /" }
        #expect(try Self.routed(metrics: true).contains("GET /metrics"), "the routes were read")
        // HEAD of a GET operation is stated once for all of them (RFC 9110's HEAD): the
        // routes made for HEAD itself (streams: the event stream, a transfer's content).
        let undocumented = api.subtracting(documented).filter { route in
            !(route.hasPrefix("HEAD ") && documented.contains("GET " + route.dropFirst(5)))
        }.sorted()
        let unrouted = documented.subtracting(api).sorted()
        #expect(undocumented.isEmpty, "routes the document does not describe: \(undocumented)")
        #expect(unrouted.isEmpty, "documented operations no route answers: \(unrouted)")
    }

    @Test("every event kind the relay sends is described in the document's RelayEvent")
    func eventKinds() throws {
        let document = String(decoding: PackageResources.openapi_yaml, as: UTF8.self)
        let kinds = RelayEventKind.allCases.map(\.rawValue)
        #expect(document.contains("kind: { type: string, enum: [\(kinds.joined(separator: ", "))] }"),
                "the RelayEvent enum lists \(kinds)")
        for kind in kinds { #expect(document.contains("            - title: \(kind)\n"), "the data of \(kind)") }
    }
}
