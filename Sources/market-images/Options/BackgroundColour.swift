import ArgumentParser

/// `--background`'s one value: marketplaces want pure white, and nothing else is made.
enum BackgroundColour: String, ExpressibleByArgument, CaseIterable {
    case white
}
