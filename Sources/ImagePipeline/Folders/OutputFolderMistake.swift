import Foundation

/// An output folder a run must not be given, found before anything is made: a file, or an input folder
/// (or a folder holding one), whose outputs would sit among the photos and be read back as photos on
/// the next run. The check is the caller's to make while it can still ask again (the command line
/// makes it a usage error); `FolderProcessor` itself only never reads its output folder.
public enum OutputFolderMistake: Error, Equatable, Sendable, CustomStringConvertible {
    case isAFile(path: String)
    /// `output` is the input folder `input`, or holds it (both as given).
    case holdsInput(output: String, input: String)

    /// The mistake of writing `inputs`' outputs into `output`, if it is one; links are followed.
    public static func check(output: String, inputs: [String]) -> OutputFolderMistake? {
        if isFolder(output) == false { return .isAFile(path: output) }
        let folder = resolved(output)
        for input in inputs where isFolder(input) == true {
            let inputFolder = resolved(input)
            if inputFolder == folder || inputFolder.hasPrefix(folder + "/") { return .holdsInput(output: output, input: input) }
        }
        return nil
    }

    public var description: String {
        switch self {
        case .isAFile(let path): "the output folder \(path) is a file"
        case .holdsInput(let output, let input):
            "the output folder \(output) is the input folder \(input) or holds it: the outputs would be read as photos"
        }
    }

    /// Whether `path` is a folder; nil when nothing is there.
    private static func isFolder(_ path: String) -> Bool? {
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &folder) ? folder.boolValue : nil
    }

    private static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
    }
}
