import Testing
import VFSCommandLine

@Suite("output")
struct OutputTests {
    @Test("a table pads every column but the last, two spaces apart, no white space at the ends")
    func table() {
        let text = TextTable.render([["ID", "APP", "NAME"], ["a1", "evince", ""], ["b22", "x", "Viewer"]])
        #expect(text == "ID   APP     NAME\na1   evince\nb22  x       Viewer\n")
        #expect(TextTable.render([]) == "")
    }
}
