import Foundation
import Testing
import VFSCore
import VFSTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Numbers a client sends at the limits of Int64 (issue 25, defect 1): the built relay
/// answers each with a 2xx or 4xx and keeps serving; before, one request trapped it.
@Suite("vfs-relay hostile header numbers", .serialized)
struct HostileRequestTests {
    static let max = "9223372036854775807"

    /// The relay still runs and answers an ordinary request.
    static func expectServing(_ setup: RelayTests.Setup, after what: String) throws {
        #expect(setup.relay.isRunning, "the relay stopped after \(what): \(setup.relay.stderrText.suffix(400))")
        #expect(try setup.client.request("GET", "/v1/health").status == 200, "after \(what)")
    }

    /// One request on its own connection with exactly these headers (the harness's
    /// `request` computes Content-Length; these requests lie about it).
    static func raw(_ setup: RelayTests.Setup, _ method: String, _ path: String, token: String,
                    headers: [String: String], body: [UInt8] = []) throws -> HTTPAnswer {
        let connection = try RawConnection(port: setup.relay.port)
        try connection.sendHead(method, path, headers: headers.merging(["Authorization": "Bearer \(token)", "Connection": "close"]) { $1 })
        if !body.isEmpty { try connection.send(body) }
        return try connection.readAnswer(method: method)
    }

    @Test("Range: huge ends, starts and suffixes, several ranges and garbage on a transfer and a cloud file: 206 inside the file, 200 for a set of several or another unit, or 416")
    func ranges() throws {
        let setup = try RelayTests.Setup()
        let content = Array(testBytes(1000, seed: 25))
        let transfer = try setup.client.send(upload: try setup.client.upload(content, token: setup.laptop.token),
                                             to: [setup.phone.id], token: setup.laptop.token)
        let cloudUpload = try setup.client.upload(content, token: setup.laptop.token)
        let put = try setup.client.request("PUT", "/v1/cloud/f.age", token: setup.laptop.token, json: #"{"upload":"\#(cloudUpload)"}"#)
        #expect(put.status == 201)
        let huge = "99999999999999999999999999"
        let cases: [(header: String, range: Range<Int>?)] = [
            ("bytes=0-\(Self.max)", 0..<1000), ("bytes=0-\(huge)", 0..<1000), ("bytes=5-9223372036854775806", 5..<1000),
            ("bytes=999-\(Self.max)", 999..<1000), ("bytes=-\(Self.max)", 0..<1000), ("bytes=-\(huge)", 0..<1000),
            ("bytes=-9223372036854775808", 0..<1000),
            ("bytes=-10", 990..<1000), ("bytes=1-2", 1..<3),
            ("bytes=\(Self.max)-", nil), ("bytes=\(Self.max)-\(Self.max)", nil), ("bytes=\(huge)-", nil),
            ("bytes=1000-\(Self.max)", nil), ("bytes=-0", nil),
            ("bytes=abc", nil), ("bytes=-", nil), ("bytes=--1", nil), ("bytes=+1-2", nil), ("bytes=1-+2", nil),
            ("bytes=0x10-", nil), ("bytes=1-0", nil), ("bytes", nil),
            // Several satisfiable ranges, or another unit: the whole file (RFC 9110 §14.2).
            ("bytes=0-1,5-\(Self.max)", 0..<0), ("bytes=-1,-2", 0..<0), ("items=0-1", 0..<0),
        ]
        for (path, token) in [("/v1/transfers/\(transfer)/content", setup.phone.token), ("/v1/cloud/f.age", setup.laptop.token)] {
            for (header, range) in cases {
                let answer = try setup.client.request("GET", path, token: token, headers: ["Range": header])
                if range == 0..<0 {
                    #expect(answer.status == 200, "\(path) \(header) → \(answer.status)")
                    #expect(answer.body == content && answer.headers["content-range"] == nil, "\(path) \(header)")
                } else if let range {
                    #expect(answer.status == 206, "\(path) \(header)")
                    #expect(answer.body == Array(content[range]), "\(path) \(header)")
                    #expect(answer.headers["content-range"] == "bytes \(range.lowerBound)-\(range.upperBound - 1)/1000", "\(header)")
                } else {
                    #expect(answer.status == 416, "\(path) \(header) → \(answer.status)")
                    #expect(answer.headers["content-range"] == "bytes */1000", "\(header)")
                }
                try Self.expectServing(setup, after: "GET \(path) Range: \(header)")
            }
        }
        #expect(setup.relay.stop() == 0)
    }

    @Test("tus: Upload-Length, Upload-Offset and Content-Length at Int64.max, negative or not numbers: 4xx, and the upload still finishes")
    func tus() throws {
        let setup = try RelayTests.Setup()
        let token = setup.laptop.token
        let tus = ["Tus-Resumable": "1.0.0"]
        let patch = tus.merging(["Content-Type": "application/offset+octet-stream"]) { $1 }
        // Creation: too large is 413, anything not a whole number 400.
        for (value, status) in [(Self.max, 413), ("99999999999999999999", 400), ("-1", 400), ("+5", 400), ("abc", 400), ("5 5", 400), ("", 400)] {
            let answer = try setup.client.request("POST", "/v1/uploads", token: token, headers: tus.merging(["Upload-Length": value]) { $1 })
            #expect(answer.status == status, "Upload-Length \"\(value)\" → \(answer.status) \(answer.text)")
            try Self.expectServing(setup, after: "Upload-Length \(value)")
        }
        let location = try setup.client.createUpload(length: 10, token: token)
        #expect(try setup.client.patch(location, token: token, offset: 0, [1]).status == 204)
        // A body declared past the upload's length, at offset 1 (offset + declared overflows).
        for declared in [Self.max, "9223372036854775806", "10"] {
            let answer = try Self.raw(setup, "PATCH", location, token: token,
                                      headers: patch.merging(["Upload-Offset": "1", "Content-Length": declared]) { $1 }, body: [2, 3])
            #expect(answer.status == 413, "Content-Length \(declared) → \(answer.status) \(answer.text)")
            try Self.expectServing(setup, after: "PATCH Content-Length \(declared)")
        }
        // A Content-Length that is no length at all: the HTTP parser or the relay refuses it.
        for declared in ["-1", "abc", "99999999999999999999"] {
            let answer = try Self.raw(setup, "PATCH", location, token: token,
                                      headers: patch.merging(["Upload-Offset": "1", "Content-Length": declared]) { $1 }, body: [2])
            #expect(answer.status == 400, "Content-Length \(declared) → \(answer.status)")
            try Self.expectServing(setup, after: "PATCH Content-Length \(declared)")
        }
        for (offset, status) in [(Self.max, 409), ("-1", 400), ("x", 400), ("+1", 400), ("99999999999999999999", 400)] {
            let answer = try setup.client.request("PATCH", location, token: token, body: [2],
                                                  headers: patch.merging(["Upload-Offset": offset]) { $1 })
            #expect(answer.status == status, "Upload-Offset \(offset) → \(answer.status)")
            try Self.expectServing(setup, after: "PATCH Upload-Offset \(offset)")
        }
        #expect(try setup.client.offset(location, token: token) == 1)
        #expect(try setup.client.patch(location, token: token, offset: 1, Array(2...10)).status == 204)
        #expect(try setup.client.offset(location, token: token) == 10)

        // A deferred length, declared at the limits.
        let created = try setup.client.request("POST", "/v1/uploads", token: token, headers: tus.merging(["Upload-Defer-Length": "1"]) { $1 })
        let deferred = try #require(created.headers["location"])
        #expect(try setup.client.patch(deferred, token: token, offset: 0, [1]).status == 204)
        for (length, status) in [(Self.max, 413), ("-5", 400), ("0", 400), ("abc", 400)] {
            let answer = try setup.client.request("PATCH", deferred, token: token, body: [2],
                                                  headers: patch.merging(["Upload-Offset": "1", "Upload-Length": length]) { $1 })
            #expect(answer.status == status, "Upload-Length \(length) → \(answer.status)")
            try Self.expectServing(setup, after: "PATCH Upload-Length \(length)")
        }
        let past = try Self.raw(setup, "PATCH", deferred, token: token,
                                headers: patch.merging(["Upload-Offset": "1", "Upload-Length": "3", "Content-Length": Self.max]) { $1 }, body: [2])
        #expect(past.status == 413)
        try Self.expectServing(setup, after: "PATCH Upload-Length 3 Content-Length max")
        let finish = try setup.client.request("PATCH", deferred, token: token, body: [2, 3],
                                              headers: patch.merging(["Upload-Offset": "1", "Upload-Length": "3"]) { $1 })
        #expect(finish.status == 204)
        #expect(setup.relay.stop() == 0)
    }

    @Test("quota sums: with --max-upload and --quota at Int64.max, an upload of Int64.max bytes beside one stored byte is 413")
    func quotaSum() throws {
        let setup = try RelayTests.Setup(arguments: ["--max-upload", Self.max, "--quota", Self.max])
        let token = setup.laptop.token
        _ = try setup.client.upload([1], token: token)
        for length in [Self.max] {
            let answer = try setup.client.request("POST", "/v1/uploads", token: token,
                                                  headers: ["Tus-Resumable": "1.0.0", "Upload-Length": length])
            #expect(answer.status == 413, "Upload-Length \(length) → \(answer.status) \(answer.text)")
            try Self.expectServing(setup, after: "Upload-Length \(length) beside a stored byte")
        }
        // A deferred upload declares it late: the same answer.
        let created = try setup.client.request("POST", "/v1/uploads", token: token,
                                               headers: ["Tus-Resumable": "1.0.0", "Upload-Defer-Length": "1"])
        let deferred = try #require(created.headers["location"])
        let answer = try setup.client.request("PATCH", deferred, token: token, body: [], headers: [
            "Tus-Resumable": "1.0.0", "Content-Type": "application/offset+octet-stream", "Upload-Offset": "0", "Upload-Length": Self.max,
        ])
        #expect(answer.status == 413)
        try Self.expectServing(setup, after: "a deferred Upload-Length at Int64.max")
        #expect(setup.relay.stop() == 0)
    }
}
