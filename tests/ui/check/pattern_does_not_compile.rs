use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(pattern = "([a-z]+")]
    word: String,
    #[elicit(pattern = "(?<=a)b")]
    lookbehind: String,
}

fn main() {}
