import HTTPTypes
import Hummingbird

/// A request for a route that exists, with a method it does not take, is answered
/// 405 with `Allow` naming the methods it takes (RFC 9110 §15.5.6), not 404. Added last,
/// so it wraps only the router's not-found answer.
struct MethodNotAllowedMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext
    let routes: RouteMethods

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let allowed = routes.methods(for: request.uri.path)
            guard !allowed.isEmpty, !allowed.contains(request.method.rawValue) else { throw error }
            let list = allowed.joined(separator: ", ")
            throw RelayError(.methodNotAllowed, .methodNotAllowed, "\(request.method.rawValue) is not allowed here; this path takes \(list)",
                             headers: [.allow: list])
        }
    }
}

/// The router's routes as patterns, and which methods a concrete path takes.
struct RouteMethods: Sendable {
    private let routes: [(pattern: [Substring], method: String)]

    /// The routes as the router lists them: a GET route also takes HEAD (the router
    /// makes that route itself, and does not list it).
    init(_ routes: [(path: String, method: String)]) {
        let heads = routes.filter { $0.method == "GET" }.map { (path: $0.path, method: "HEAD") }
        self.routes = (routes + heads).map { (Array($0.path.split(separator: "/")), $0.method) }
    }

    /// The methods the routes matching `path` take, in a stable order.
    func methods(for path: String) -> [String] {
        let components = Array(path.split(separator: "/"))
        let found = Set(routes.filter { Self.matches($0.pattern, components[...]) }.map(\.method))
        return found.sorted()
    }

    /// A route pattern as Hummingbird describes it: literals, `{name}` and `*` for one
    /// component (with a literal prefix or suffix), `**` for the rest (at least one).
    static func matches(_ pattern: [Substring], _ path: ArraySlice<Substring>) -> Bool {
        guard let first = pattern.first else { return path.isEmpty }
        if first == "**" { return !path.isEmpty }  // one component or more, as the router's
        guard let component = path.first else { return false }
        guard element(first, matches: component) else { return false }
        return matches(Array(pattern.dropFirst()), path.dropFirst())
    }

    static func element(_ element: Substring, matches component: Substring) -> Bool {
        if element == "*" { return true }
        if let open = element.firstIndex(of: "{"), let close = element.lastIndex(of: "}"), open < close {
            let prefix = element[..<open], suffix = element[element.index(after: close)...]
            return component.count >= prefix.count + suffix.count && component.hasPrefix(prefix) && component.hasSuffix(suffix)
        }
        if element.hasPrefix("*") { return component.hasSuffix(element.dropFirst()) }
        if element.hasSuffix("*") { return component.hasPrefix(element.dropLast()) }
        return element == component
    }
}
