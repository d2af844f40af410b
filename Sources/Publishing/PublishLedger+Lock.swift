import Foundation
import ImagePipeline

extension PublishLedger {
    /// Holds `productsFolder` for one command that changes listings, from its plan to its last
    /// request: two publishes at once would each plan the same new folder as a register and list it
    /// twice. The kernel drops the lock when the process ends, however it ends.
    public static func lock(_ productsFolder: String) throws(PublishingError) -> OutputLock {
        do {
            return try OutputLock(folder: productsFolder)
        } catch .outputLocked {
            throw .folderInUse(productsFolder)
        } catch {
            throw .preparationStopped(error, failures: [])
        }
    }
}
