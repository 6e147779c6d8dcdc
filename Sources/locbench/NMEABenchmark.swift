import LocCore
import LocSystem

/// `locbench nmea FILE [--rss-sentences N]`: decode throughput of `NMEADecoder` over FILE (held
/// in memory, fed in 64 KiB chunks as a source would), then RSS before and after decoding at
/// least N sentences (default 10 million) by feeding FILE repeatedly to one decoder.
enum NMEABenchmark: Benchmark {
  static let name = "nmea"

  static func run(_ arguments: [String]) -> Int32 {
    guard let path = arguments.first else {
      print("usage: locbench nmea FILE [--rss-sentences N]")
      return 2
    }
    var rssSentences = 10_000_000
    if arguments.count == 3, arguments[1] == "--rss-sentences", let n = Int(arguments[2]) { rssSentences = n }
    let input: [UInt8]
    do {
      input = try FileIO.read(path: path, limit: 1 << 30)
    } catch {
      print("locbench: nmea: cannot read \(path): \(error)")
      return 1
    }
    // Sentences = lines starting with $ or !, the same count gpsdecode is measured against.
    var sentences = 0
    var atStart = true
    for b in input {
      if atStart && (b == 0x24 || b == 0x21) { sentences += 1 }
      atStart = b == 0x0A || b == 0x0D
    }

    // Throughput: one pass, one fresh decoder, the best of three to skip warm-up effects.
    var best = Double.infinity
    var fixes = 0
    for _ in 0..<3 {
      var decoder = NMEADecoder()
      var count = 0
      let start = monotonicSeconds()
      feed(input, to: &decoder) { _ in count += 1 }
      decoder.finish { _ in count += 1 }
      best = min(best, monotonicSeconds() - start)
      fixes = count
    }
    print("input: \(input.count) bytes, \(sentences) sentences, \(fixes) fixes")
    print("locd_sentences_per_second \(Int(Double(sentences) / best))")

    // Memory: RSS stays flat however much is decoded.
    var decoder = NMEADecoder()
    var decoded = 0
    var sink = 0
    guard rssSentences > 0 else { return 0 }
    let rssBefore = residentKiB()
    var rssAfterFirstPass = 0
    while decoded < rssSentences {
      feed(input, to: &decoder) { sink &+= $0.mode.rawValue }
      decoded += sentences
      if rssAfterFirstPass == 0 { rssAfterFirstPass = residentKiB() }
    }
    let rssAfter = residentKiB()
    // The first pass touches code and data pages for the first time; after it, nothing grows.
    print(
      "rss_kib before \(rssBefore), after \(sentences) sentences \(rssAfterFirstPass),"
        + " after \(decoded) sentences \(rssAfter) (input held in memory: \(input.count / 1024) KiB; \(sink % 2))"
    )
    return 0
  }

  private static func feed(_ input: [UInt8], to decoder: inout NMEADecoder, _ onFix: (Fix) -> Void) {
    input.withUnsafeBytes { all in
      var offset = 0
      while offset < all.count {
        let end = min(offset + 65536, all.count)
        decoder.feed(UnsafeRawBufferPointer(rebasing: all[offset..<end]), onFix)
        offset = end
      }
    }
  }

  private static func monotonicSeconds() -> Double {
    Double(Clocks.nanoseconds(.monotonic)) / 1e9
  }

  /// VmRSS from /proc/self/status, in KiB.
  private static func residentKiB() -> Int {
    guard let bytes = try? FileIO.read(path: "/proc/self/status", limit: 1 << 16) else { return -1 }
    let text = String(decoding: bytes, as: UTF8.self)
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
      return Int(line.dropFirst(6).filter { $0.isNumber }) ?? -1
    }
    return -1
  }
}
