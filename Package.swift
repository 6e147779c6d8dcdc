// swift-tools-version:6.0
import PackageDescription

// The module graph points one way: LocCore <- LocProtocol <- LocSystem <- executables.
// See docs/decisions/0001-module-graph-and-no-foundation.md.
// The shell talks to C (libsystemd, libc) through globals such as stderr; it runs on one
// thread (the sd-event loop), so it is compiled in the Swift 5 language mode.
let shell: [SwiftSetting] = [.swiftLanguageMode(.v5)]

let package = Package(
  name: "locd",
  products: [
    .executable(name: "locd", targets: ["locd"]),
    .executable(name: "locctl", targets: ["locctl"]),
    .executable(name: "locbench", targets: ["locbench"]),
  ],
  targets: [
    .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
    .target(name: "CLocShim"),
    .target(name: "LocCore"),
    .target(name: "LocProtocol", dependencies: ["LocCore"]),
    .target(
      name: "LocSystem", dependencies: ["LocCore", "LocProtocol", "CSystemd", "CLocShim"],
      swiftSettings: shell),
    .executableTarget(
      name: "locd", dependencies: ["LocCore", "LocProtocol", "LocSystem"], swiftSettings: shell),
    .executableTarget(
      name: "locctl", dependencies: ["LocCore", "LocProtocol", "LocSystem"], swiftSettings: shell),
    .executableTarget(
      name: "locbench", dependencies: ["LocCore", "LocProtocol", "LocSystem"], swiftSettings: shell),
    .testTarget(name: "LocCoreTests", dependencies: ["LocCore"], swiftSettings: shell),
    .testTarget(name: "LocProtocolTests", dependencies: ["LocProtocol"], swiftSettings: shell),
    .testTarget(name: "LocSystemTests", dependencies: ["LocSystem", "CLocShim"], swiftSettings: shell),
    .testTarget(
      name: "EndToEndTests", dependencies: ["LocCore", "LocProtocol", "LocSystem", "CLocShim"],
      swiftSettings: shell),
  ]
)
