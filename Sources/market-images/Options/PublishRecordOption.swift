import ArgumentParser

/// `--products FOLDER`, for the commands that change listings one by one (`edit`, `attach`,
/// `delete`): the products folder whose publish record is kept in line with what they send, so the
/// next `publish` starts from it instead of undoing it or listing a product twice.
struct PublishRecordOption: ParsableArguments {
    @Option(help: ArgumentHelp("The products folder publish keeps its record in: what this command changes is recorded there.",
                               valueName: "folder"))
    var products: String?
}
