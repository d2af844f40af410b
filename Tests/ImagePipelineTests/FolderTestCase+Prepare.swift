import ImagePipeline
import TestSupport

extension FolderTestCase {
    /// `prepare`'s folder run with its defaults, in process: what a new user's mistakes are tried on.
    func prepareRun(_ inputs: [String], into folder: String) throws -> FolderReport {
        try FolderProcessor(job: FolderJob(inputs: inputs, outputFolder: folder)).run()
    }
}
