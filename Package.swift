// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "market-images",
    // iOS for the libraries an app uses (MarketUploader); the rest builds for macOS and Linux.
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .library(name: "ImagePipeline", targets: ["ImagePipeline"]),
        .library(name: "MarketUploader", targets: ["MarketUploader"]),
        .library(name: "ThumbnailService", targets: ["ThumbnailService"]),
        .library(name: "Publishing", targets: ["Publishing"]),
        .library(name: "ProductPreview", targets: ["ProductPreview"]),
        .executable(name: "market-images", targets: ["market-images"]),
        // The background model's runtime: OpenCV's DNN behind a C API, a shared library that the tool
        // loads with dlopen only for --background, so neither the tool nor its package depends on OpenCV.
        .library(name: "MarketImagesMask", type: .dynamic, targets: ["CBackgroundMask"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
        // The thumbnail service: HTTP server, lifecycle, logs and Prometheus metrics.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // The service's connection handlers sit in its NIO pipeline.
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.25.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
        // `preview`'s pages, rendered from templates with HTML escaping by default.
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.0.0"),
        // Test-only: a loopback HTTP server and an independent multipart parser for the uploader tests.
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.0"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.0"),
        // The libraries' DocC reference (scripts/docs); a command plugin, built only when asked for.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"]), .brew(["vips"])]
        ),
        // Our own C kernels (the JPEG decode to a fit and its Lanczos3 shrink), compiled once.
        .target(name: "CKernels", dependencies: ["CVips"], linkerSettings: [.linkedLibrary("jpeg")]),
        // U²-Net-p through Debian 12's OpenCV 4.6 (libopencv-dnn-dev, which ships no pkg-config file:
        // hence the include path as a flag). Nothing links it: MaskRuntime opens the library by name.
        .target(
            name: "CBackgroundMask",
            cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4", "-I/usr/local/include/opencv4", "-I/opt/homebrew/include/opencv4"])],
            linkerSettings: [.linkedLibrary("opencv_dnn"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core")]
        ),
        .target(name: "ImagePipeline", dependencies: ["CVips", "CKernels", .product(name: "Crypto", package: "swift-crypto")]),
        // Foundation and swift-crypto (CryptoKit on Apple platforms) only: an iOS app uses this target,
        // and libvips is not available there.
        .target(name: "MarketUploader", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // The thumbnail service as a library: `serve` runs it, `preview` and other servers mount it.
        .target(
            name: "ThumbnailService",
            dependencies: [
                "ImagePipeline",
                "MarketUploader",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // Product folders → one server: product.json, the photo cache, the ledger, plan and apply.
        .target(name: "Publishing", dependencies: ["ImagePipeline", "MarketUploader"]),
        // The products folder as the apps will show it, as routes beside the thumbnail service's;
        // pages from templates with HTML escaping by default.
        .target(
            name: "ProductPreview",
            dependencies: [
                "ImagePipeline", "MarketUploader", "Publishing", "ThumbnailService",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "market-images",
            dependencies: [
                "ImagePipeline",
                "MarketUploader",
                "Publishing",
                "ProductPreview",
                "ThumbnailService",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Release-mode stage timings of the decode paths, and their outputs for the quality check (Benchmarks/stages.sh).
        .executableTarget(name: "stage-timings", dependencies: ["ImagePipeline", "CVips", "CKernels"], path: "Benchmarks/StageTimings"),
        // What the tests share: fixtures, independent oracles (ExifTool, Chromium, Pillow), the loopback
        // OpenMarket server and origins, and a runner for the built tool. No library's tests build the tool.
        .target(
            name: "TestSupport",
            dependencies: [
                "ImagePipeline", "MarketUploader",
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "ImagePipelineTests",
            dependencies: ["ImagePipeline", "TestSupport"]
        ),
        // Every test that starts the built tool as a user starts it, by command: prepare and thumbs,
        // publish against the loopback server, serve (nginx in front, SIGTERM under load, attacks),
        // preview in headless Chromium, and the command line's conventions. Depending on the
        // executable gets it built.
        .testTarget(
            name: "CommandLineTests",
            dependencies: [
                "market-images", "ImagePipeline", "MarketUploader", "ThumbnailService", "TestSupport",
                .product(name: "FlyingFox", package: "FlyingFox"),
            ]
        ),
        // The service in process, through HummingbirdTesting: no ports, no binary; and the libraries'
        // documented examples, compiled and run (LibraryExampleTests).
        .testTarget(
            name: "ThumbnailServiceTests",
            dependencies: [
                "ThumbnailService",
                "ProductPreview",
                "ImagePipeline",
                "MarketUploader",
                "Publishing",
                "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The preview mounted on a router and spoken to over loopback, in process.
        .testTarget(
            name: "ProductPreviewTests",
            dependencies: [
                "ProductPreview", "Publishing", "ImagePipeline", "ThumbnailService", "TestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Planning and applying through MarketUploader's HTTPTransport seam, in process.
        .testTarget(name: "PublishingTests", dependencies: ["Publishing", "ImagePipeline", "MarketUploader", "TestSupport"]),
        .testTarget(
            name: "MarketUploaderTests",
            dependencies: [
                "MarketUploader",
                "ImagePipeline",
                "TestSupport",
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "MultipartKit", package: "multipart-kit"),
            ]
        ),
    ]
)
