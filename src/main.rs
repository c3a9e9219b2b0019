fn main() {
    std::process::exit(minimo::cli::run());
}
