import Foundation
import LocCore

/// The NMEA fixture logs (Tests/Fixtures/nmea, see PROVENANCE.md there) and helpers to decode them.
enum NMEAFixtures {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("Fixtures/nmea")

  /// Every `.log`, sorted by name.
  static let logs: [String] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasSuffix(".log") }.sorted()
  }()

  static func bytes(_ name: String) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else {
      return []
    }
    return [UInt8](data)
  }

  /// Decodes `bytes` fed in chunks of `chunkSize` (0: all at once) and finished.
  static func decode(_ bytes: [UInt8], chunkSize: Int = 0, referenceTime: Instant? = nil)
    -> (fixes: [Fix], counters: NMEACounters)
  {
    var decoder = NMEADecoder(referenceTime: referenceTime)
    var fixes: [Fix] = []
    bytes.withUnsafeBytes { all in
      let step = chunkSize > 0 ? chunkSize : max(all.count, 1)
      var offset = 0
      while offset < all.count {
        let end = min(offset + step, all.count)
        decoder.feed(UnsafeRawBufferPointer(rebasing: all[offset..<end])) { fixes.append($0) }
        offset = end
      }
    }
    decoder.finish { fixes.append($0) }
    return (fixes, decoder.counters)
  }

  /// Decodes NMEA text given as lines (joined with CRLF).
  static func decode(lines: [String], referenceTime: Instant? = nil) -> (fixes: [Fix], counters: NMEACounters)
  {
    decode(Array(lines.map { $0 + "\r\n" }.joined().utf8), referenceTime: referenceTime)
  }
}
