// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "market-images",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "ImagePipeline", targets: ["ImagePipeline"]),
        .library(name: "MarketUploader", targets: ["MarketUploader"]),
        .executable(name: "market-images", targets: ["market-images"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"]), .brew(["vips"])]
        ),
        .target(name: "ImagePipeline", dependencies: ["CVips"]),
        // Foundation only: this target must build for iOS, where libvips is not available.
        .target(name: "MarketUploader"),
        .executableTarget(
            name: "market-images",
            dependencies: [
                "ImagePipeline",
                "MarketUploader",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "ImagePipelineTests",
            // The CLI tests run the built executable, so the test target depends on it to get it built.
            dependencies: ["ImagePipeline", "CVips", "market-images"]
        ),
        .testTarget(name: "MarketUploaderTests", dependencies: ["MarketUploader"]),
    ]
)
