import Foundation
import Testing
import VFSObjectStore

/// The signer against AWS's own SigV4 test suite (Tests/aws-sig-v4, from awslabs/aws-c-auth):
/// each case's canonical request, string to sign, signature and signed headers.
@Suite("AWS Signature V4")
struct SignatureV4Tests {
    static let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("aws-sig-v4")

    static var cases: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: vectors.path)) ?? [])
            .filter { FileManager.default.fileExists(atPath: vectors.appendingPathComponent("\($0)/request.txt").path) }.sorted()
    }

    @Test("the suite is there: 30 cases")
    func suitePresent() {
        #expect(Self.cases.count == 30, "\(Self.cases)")
    }

    struct Context: Decodable {
        struct Credentials: Decodable {
            let access_key_id: String
            let secret_access_key: String
            let token: String?
        }
        let credentials: Credentials
        let region: String
        let service: String
        let sign_body: Bool
        let timestamp: String
    }

    /// request.txt: the request line, `Name:value` lines, an empty line, the body.
    static func parse(_ text: String) -> (method: String, path: String, query: [(String, String)], headers: [(String, String)], body: String) {
        let (head, body): (Substring, String) = {
            guard let split = text.range(of: "\n\n") else { return (Substring(text), "") }
            return (text[..<split.lowerBound], String(text[split.upperBound...]))
        }()
        let lines = head.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        let requestLine = lines[0]
        let method = String(requestLine.prefix(while: { $0 != " " }))
        let target = requestLine.dropFirst(method.count + 1).dropLast(" HTTP/1.1".count)
        let pathPart = target.prefix(while: { $0 != "?" })
        let queryPart = target.dropFirst(pathPart.count + 1)
        let query: [(String, String)] = queryPart.isEmpty ? [] : queryPart.split(separator: "&").map { pair in
            let name = pair.prefix(while: { $0 != "=" })
            let value = pair.dropFirst(name.count + 1)
            return (String(name).removingPercentEncoding!, String(value).removingPercentEncoding!)
        }
        let headers: [(String, String)] = lines.dropFirst().map { line in
            let name = line.prefix(while: { $0 != ":" })
            return (String(name), String(line.dropFirst(name.count + 1)))
        }
        return (method, String(pathPart).removingPercentEncoding!, query, headers, body)
    }

    @Test("each case of the suite signs as AWS does", arguments: cases)
    func vector(name: String) throws {
        let folder = Self.vectors.appendingPathComponent(name)
        func read(_ file: String) throws -> String { try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8) }
        let context = try JSONDecoder().decode(Context.self, from: Data(read("context.json").utf8))
        let request = Self.parse(try read("request.txt"))
        let date = try #require(ISO8601DateFormatter().date(from: context.timestamp))
        let signer = SignatureV4(credentials: S3Credentials(accessKeyID: context.credentials.access_key_id,
                                                            secretAccessKey: context.credentials.secret_access_key,
                                                            sessionToken: context.credentials.token),
                                 region: context.region, service: context.service)
        let payloadHash = SignatureV4.payloadHash(Array(request.body.utf8))
        let signed = signer.sign(method: request.method, path: request.path, query: request.query, headers: request.headers,
                                 payloadHash: payloadHash, payloadHeader: context.sign_body, date: date)
        #expect(signed.canonicalRequest == (try read("header-canonical-request.txt")))
        #expect(signed.stringToSign == (try read("header-string-to-sign.txt")))
        #expect(signed.signature == (try read("header-signature.txt")))
        let expected = Self.parse(try read("header-signed-request.txt"))
        #expect(expected.headers.first { $0.0 == "Authorization" }?.1 == signed.authorization)
        func normalised(_ headers: [(String, String)]) -> [String] { headers.map { "\($0.0.lowercased()):\($0.1)" }.sorted() }
        #expect(normalised(signed.headers.map { ($0.name, $0.value) }) == normalised(expected.headers))
    }

    @Test("paths and query values are escaped once, S3's way: unreserved kept, / kept in paths only")
    func escaping() {
        #expect(SignatureV4.escapedPath("/bucket/a b/ü~x.y_z-") == "/bucket/a%20b/%C3%BC~x.y_z-")
        #expect(SignatureV4.escapedQuery("a/b+c=d&e") == "a%2Fb%2Bc%3Dd%26e")
        #expect(SignatureV4.timestamp(Date(timeIntervalSince1970: 1_440_938_160)) == "20150830T123600Z")
    }
}
