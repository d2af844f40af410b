import CKernels
import CVips
import Foundation
import ImagePipeline

// Stage timings of the fit-512 job (a JPEG fitted into a 512 px box, saved as JPEG Q80), one image at a
// time on one thread, in release mode: the decoder's floor, libvips' `vips_thumbnail` path (what every
// JPEG took before), the path JPEGs take now, and the draft decode. Paths and images are interleaved
// in every round; the figures are per image, the minimum and the median over rounds.
// With --save DIR, writes each image as the now and draft paths make it, as lossless PNG, instead
// (for decode_quality.py).
// Usage: stage-timings [--box N] [--rounds N] [--only PATH] [--save DIR] JPEG...

struct Options {
    var box = 512
    var rounds = 7
    var only: String?
    var save: String?
    var files: [String] = []

    init(_ arguments: [String]) {
        var rest = arguments.makeIterator()
        while let argument = rest.next() {
            switch argument {
            case "--box": box = rest.next().flatMap(Int.init) ?? box
            case "--rounds": rounds = rest.next().flatMap(Int.init) ?? rounds
            case "--only": only = rest.next()
            case "--save": save = rest.next()
            default: files.append(argument)
            }
        }
    }
}

/// One way of doing the job, split into the stages it is timed by.
struct Path {
    let name: String
    let stages: [String]
    let run: (String) throws -> [Double]
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func check(_ status: Int32, _ what: String) throws {
    guard status == 0 else { throw NSError(domain: what, code: Int(status)) }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
guard !options.files.isEmpty else {
    FileHandle.standardError.write(Data("usage: stage-timings [--box N] [--rounds N] [--only PATH] [--save DIR] JPEG...\n".utf8))
    exit(2)
}
// As market-images runs (every command tunes the allocator first).
VipsRuntime.tuneAllocatorForBatchWork()
_ = try ImageHeader.read(file: options.files[0])  // starts libvips
vips_concurrency_set(1)
let box = options.box
let spec = RenderSpec(width: box, height: box, resizing: .fit, format: .jpeg, quality: 80)
let renderer = try ImageRenderer(spec: spec)

if let folder = options.save {
    let lossless = try ImageRenderer(spec: RenderSpec(width: box, height: box, resizing: .fit, format: .png))
    for file in options.files {
        let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        for (suffix, draft) in [("now", false), ("draft", true)] {
            let png = try lossless.render(.file(file), maxPixels: .max, draft: draft)
            try png.data.write(to: URL(fileURLWithPath: "\(folder)/\(name).\(suffix).png"))
        }
    }
    exit(0)
}

let paths = [
    Path(name: "floor: libjpeg decode at the job's DCT scale, nothing else", stages: ["decode"]) { file in
        // The scale the default path decodes at.
        let scale = JPEGFit(header: try ImageHeader.read(file: file), box: (box, box), headroom: 2).scale
        var out: UnsafeMutablePointer<VipsImage>?
        // Reading the file is part of every path: the pipeline hands libvips bytes, never a name.
        let time = try seconds {
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            try data.withUnsafeBytes { bytes in
                try withUnsafeMutablePointer(to: &out) { pointer in
                    try pointer.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 1) { image in
                        try check(mi_jpeg_thumbnail(bytes.baseAddress, bytes.count, Int32(scale), 1, Int32.max, Int32.max, 1, 0, image), "decode")
                    }
                }
            }
        }
        g_object_unref(out)
        return [time]
    },
    Path(name: "before: vips_thumbnail (shrink-on-load by 1/2, 1/4, 1/8, then libvips' Lanczos3), jpegsave", stages: ["decode + resize", "encode"]) { file in
        var image: UnsafeMutablePointer<VipsImage>?
        var bytes: UnsafeMutableRawPointer?
        var length = 0
        let decode = try seconds {
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            _ = try ImageHeader.read(.data(data))
            var lazy: UnsafeMutablePointer<VipsImage>?
            try data.withUnsafeBytes { bytes in
                try check(mi_thumbnail_buffer(bytes.baseAddress, bytes.count, &lazy, Int32(box), Int32(box), nil, 1), "thumbnail")
                image = vips_image_copy_memory(lazy)
            }
            g_object_unref(lazy)
        }
        let encode = try seconds { try check(mi_jpegsave_buffer(image, &bytes, &length, 80, 0, 0), "jpegsave") }
        g_free(bytes)
        g_object_unref(image)
        return [decode, encode]
    },
    Path(name: "now: own libjpeg decode at the same scale, streamed into a vectorised Lanczos3, jpegsave", stages: ["decode + resize", "encode"]) { file in
        var decoded: DecodedImage?
        let decode = try seconds { decoded = try DecodedImage.decode(file: file, maxPixels: .max) { _ in (box, box) } }
        let encode = try seconds { _ = try renderer.render(decoded!) }
        return [decode, encode]
    },
    Path(name: "draft (serve --fast-decode): DCT scale straight to the box", stages: ["decode + resize", "encode"]) { file in
        var decoded: DecodedImage?
        let decode = try seconds { decoded = try DecodedImage.decode(.file(file), maxPixels: .max, draft: true) { _ in (box, box) } }
        let encode = try seconds { _ = try renderer.render(decoded!) }
        return [decode, encode]
    },
].filter { path in options.only.map { path.name.hasPrefix($0) } ?? true }

// times[path][stage][round] = seconds per image, averaged over the files of that round.
var times = paths.map { path in path.stages.map { _ in [Double]() } }
for _ in 0..<options.rounds {
    var sums = paths.map { path in path.stages.map { _ in 0.0 } }
    for file in options.files {
        for (index, path) in paths.enumerated() {
            for (stage, time) in try path.run(file).enumerated() { sums[index][stage] += time }
        }
    }
    for index in paths.indices {
        for stage in sums[index].indices { times[index][stage].append(sums[index][stage] / Double(options.files.count)) }
    }
}

func milliseconds(_ value: Double) -> String { String(format: "%.2f", value * 1000) }
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

let floor = times.first.map { median($0[0]) }
print("| path | stage | min ms | median ms | total median ms | × floor |")
print("|---|---|---|---|---|---|")
for (index, path) in paths.enumerated() {
    let total = (0..<options.rounds).map { round in times[index].map { $0[round] }.reduce(0, +) }
    for (stage, values) in times[index].enumerated() {
        let ratio = floor.map { String(format: "%.2f", median(total) / $0) } ?? "-"
        print("| \(stage == 0 ? path.name : "") | \(path.stages[stage]) | \(milliseconds(values.min()!)) | \(milliseconds(median(values))) | \(stage == 0 ? milliseconds(median(total)) : "") | \(stage == 0 ? ratio : "") |")
    }
}
print("\n\(options.files.count) JPEGs, box \(box), \(options.rounds) rounds, libvips threads: 1")
