import Foundation
import ImagePipeline
import MarketUploader
import Publishing
import TestSupport
import XCTest

/// Planning prepares photos, which blocks while libvips works; it does so off the threads tasks
/// share, so runs in one process, and a server beside them, never wait for each other's photos.
final class PlanningThreadTests: FolderTestCase {
    /// As many plans at once as the machine has cores (the task pool's threads), each held inside
    /// preparing until a task lets it go: that task runs, so no plan holds a thread of the pool.
    func testPlanningHoldsNoThreadTasksShare() async throws {
        let width = ProcessInfo.processInfo.activeProcessorCount
        let (arrivals, arrived) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let waitedInVain = Locked(0)
        let server = URL(string: "https://openmarket.test")!
        var runs: [PublishRun] = []
        for index in 0..<width {
            try copy("photos/jolla.jpg", to: "\(index)/mug/IMG_1.jpg")
            try #"{"name":"Ceramic mug","description":"A mug for slow mornings.","price":12000,"stock":4}"#
                .write(toFile: input + "/\(index)/mug/product.json", atomically: true, encoding: .utf8)
            var run = try PublishRun(productsFolder: input + "/\(index)", server: server, client: OpenMarketClient(baseURL: server, dialect: .openmarket),
                                     credentials: .vendor(identifier: "vendor-7", secret: Secret("planning-test-secret")),
                                     photos: PhotoCache(prepareOptions: PrepareOptions(), root: root + "/cache-\(index)"))
            // Planned from the record: there is no server to read.
            run.dryRun = true
            run.onPhotoEvent = { event in
                guard case .planned = event else { return }
                arrived.yield()
                if release.wait(timeout: .now() + 10) == .timedOut { waitedInVain.withLock { $0 += 1 } }
            }
            runs.append(run)
        }
        let actions = await withTaskGroup(of: [PublishStep.Action].self) { group in
            for run in runs {
                group.addTask {
                    var run = run
                    return (try? await run.plan(folders: [run.productsFolder + "/mug"]))?.map(\.action) ?? []
                }
            }
            group.addTask {
                for await _ in arrivals.prefix(width) {}
                for _ in 0..<width { release.signal() }
                return []
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        XCTAssertEqual(waitedInVain.current, 0, "plans held the task pool's threads, so the task that lets them go could not run")
        XCTAssertEqual(actions, Array(repeating: .register, count: width))
    }
}
