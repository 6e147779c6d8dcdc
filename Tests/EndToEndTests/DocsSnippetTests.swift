import Foundation
import Testing

/// What the documentation shows a new user is what this package has.
@Suite struct DocsSnippetTests {
  /// Issue 43, item 10: APPS.md never showed how an app depends on LocationManager; a reader
  /// had to guess the Package.swift lines. The lines it shows name this package and its
  /// library product as Package.swift declares them.
  @Test func appsMdShowsThePackageSwiftLinesOfALocationManagerApp() throws {
    let root = Binaries.packageRoot.path
    let apps = try String(contentsOfFile: root + "/docs/APPS.md", encoding: .utf8)
    let manifest = try String(contentsOfFile: root + "/Package.swift", encoding: .utf8)
    let package = try #require(manifest.firstMatch(of: /Package\(\s*name: "([^"]+)"/)?.1)
    #expect(manifest.contains(".library(name: \"LocationManager\""))
    #expect(apps.contains(".product(name: \"LocationManager\", package: \"\(package)\")"), "APPS.md")
    #expect(apps.contains(".package(path: \"../\(package)\")"), "APPS.md")
  }
}
