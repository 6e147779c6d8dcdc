import Glibc
import LocSystem
import Testing

@Suite struct FileIOTests {
  @Test func readsWholeFileAndEnforcesLimit() throws {
    var template = Array("/tmp/locd-fileio-XXXXXX".utf8CString)
    let file = FileDescriptor(owning: mkstemp(&template))
    let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    defer { unlink(path) }
    let bytes = (0..<200_000).map { UInt8($0 % 251) }
    try file.writeAll(bytes)
    try file.close()
    #expect(try FileIO.read(path: path) == bytes)
    #expect(throws: Errno(call: "read", code: EFBIG)) { try FileIO.read(path: path, limit: 1000) }
    #expect(throws: Errno(call: "open", code: ENOENT)) { try FileIO.read(path: path + ".missing") }
  }
}
