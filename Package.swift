// swift-tools-version:6.0
import PackageDescription

// The module graph points one way: LocCore <- LocProtocol <- LocClient <- LocSystem <-
// executables; the LocationManager client library stands on LocClient alone, so an app links
// no libsystemd (decisions 0023, 0038).
// See docs/decisions/0001-module-graph-and-no-foundation.md. Every target compiles in the
// Swift 6 language mode; the concurrency model is in docs/decisions/0010-syscall-layer-and-concurrency.md.

// Release builds link libstdc++ (the Swift runtime's C++ library) statically when make has
// prepared .build/static-libstdc++ (decision 0031); without that directory it links shared.
let staticLibstdcxx = LinkerSetting.unsafeFlags(
  ["-L", "\(Context.packageDirectory)/.build/static-libstdc++"], .when(configuration: .release))

// Release builds put every function in a section of its own, so that locd's link can lay out
// the code that runs while it serves side by side (link/locd.order, from
// scripts/order-file.sh): the kernel maps code in 64 KB runs around each fault, and with hot
// and cold code mixed locd kept about 5 MB of its binary resident for 1.5 MB it used. lld
// reads the order (GNU ld and gold do not take one by symbol) and packs the relative
// relocations (DT_RELR, glibc 2.36): 900 KB of .rela.dyn the loader read at every start
// become 8 KB. Decision 0057.
let functionSections = SwiftSetting.unsafeFlags(
  ["-Xfrontend", "-function-sections"], .when(configuration: .release))
let cFunctionSections = CSetting.unsafeFlags(["-ffunction-sections"], .when(configuration: .release))
let orderedLink = LinkerSetting.unsafeFlags(
  [
    "-use-ld=lld", "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/link/locd.order",
    "-Xlinker", "--no-warn-symbol-ordering", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
    // The functions LLVM leaves without a symbol, which no order can name, in one run before
    // the hot code (link/locd-sections.ld).
    "-Xlinker", "-T", "-Xlinker", "\(Context.packageDirectory)/link/locd-sections.ld",
  ], .when(configuration: .release))

let package = Package(
  name: "locd",
  products: [
    .executable(name: "locd", targets: ["locd"]),
    .executable(name: "locctl", targets: ["locctl"]),
    .executable(name: "locd-session", targets: ["locd-session"]),
    .executable(name: "locbench", targets: ["locbench"]),
    // The client library for apps (docs/APPS.md, decision 0023).
    .library(name: "LocationManager", targets: ["LocationManager"]),
  ],
  targets: [
    .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
    .target(name: "CLocShim", cSettings: [cFunctionSections]),
    // The GeoClue2 face's sd-bus vtables: C, because sd-bus's vtable macros are; apart from
    // CLocShim so that what links CLocShim without the daemon (locctl) needs no libsystemd.
    .target(name: "CLocBusShim", dependencies: ["CSystemd"], cSettings: [cFunctionSections]),
    // One HTTP POST through libcurl (libcurl4-openssl-dev) for the geolocation lookups
    // (decision 0050): C, because curl_easy_setopt is variadic.
    // libcurl is loaded with dlopen at the first lookup (loccurl.c): only its headers at build time.
    .target(name: "CLocCurl", cSettings: [cFunctionSections], linkerSettings: [.linkedLibrary("dl")]),
    .target(name: "LocCore", swiftSettings: [functionSections]),
    .target(name: "LocProtocol", dependencies: ["LocCore"], swiftSettings: [functionSections]),
    // The client of locd's socket and the syscall wrappers it needs; no C library but libc.
    .target(name: "LocClient", dependencies: ["LocCore", "LocProtocol"], swiftSettings: [functionSections]),
    // What the daemon and its offline tools share of the host: files, accounts, clocks, the
    // process, the zone data; libc only, no libsystemd (locctl links this, not LocSystem).
    .target(
      name: "LocHost", dependencies: ["LocCore", "LocProtocol", "LocClient", "CLocShim"],
      swiftSettings: [functionSections]),
    .target(
      name: "LocSystem",
      dependencies: [
        "LocCore", "LocProtocol", "LocClient", "LocHost", "CSystemd", "CLocShim", "CLocBusShim", "CLocCurl",
      ], swiftSettings: [functionSections]),
    .executableTarget(
      name: "locd", dependencies: ["LocCore", "LocProtocol", "LocSystem"],
      // The Swift standard library linked statically (make release) exports every symbol of
      // locd's modules (-export-dynamic): 800 KB of symbol tables the dynamic linker pages in
      // at start, about 1 MB of RSS. Nothing looks locd's symbols up at run time (no dlsym,
      // no Foundation); crash reports use .symtab, which stays (docs/GEOCLUE.md, figures).
      swiftSettings: [functionSections],
      linkerSettings: [.unsafeFlags(["-Xlinker", "--no-export-dynamic"]), staticLibstdcxx, orderedLink]),
    .executableTarget(
      name: "locctl", dependencies: ["LocCore", "LocProtocol", "LocClient", "LocHost"],
      linkerSettings: [staticLibstdcxx]
    ),
    // The per-user session service: light and dark by the Sun on the session bus (decision 0065).
    .executableTarget(
      name: "locd-session", dependencies: ["LocCore", "LocSystem"], linkerSettings: [staticLibstdcxx]),
    .executableTarget(name: "locbench", dependencies: ["LocCore", "LocProtocol", "LocSystem"]),
    .target(name: "LocationManager", dependencies: ["LocCore", "LocProtocol", "LocClient"]),
    // The example of docs/APPS.md; built and used by the tests, never installed.
    .executableTarget(name: "WhereAmI", dependencies: ["LocationManager"], path: "Examples/WhereAmI"),
    // The region example of docs/REGIONS.md; built and used by the tests, never installed.
    .executableTarget(name: "Geofence", dependencies: ["LocationManager"], path: "Examples/Geofence"),
    .testTarget(name: "LocCoreTests", dependencies: ["LocCore"]),
    .testTarget(name: "LocProtocolTests", dependencies: ["LocProtocol"]),
    .testTarget(name: "LocSystemTests", dependencies: ["LocSystem", "CLocShim"]),
    .testTarget(
      name: "EndToEndTests",
      dependencies: ["LocCore", "LocProtocol", "LocSystem", "LocationManager", "CLocShim"]),
  ],
  swiftLanguageModes: [.v6]
)
