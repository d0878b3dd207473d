use elicit::Elicit;

// Every mistake the derive can see is reported in one build, each at its own token.
#[derive(Elicit)]
#[elicit(titel = "Form", rename_all = "camelcase")]
struct Form {
    #[elicit(min_length = 5, max_length = 3, min_length = 1)]
    name: String,
    #[elicit(minimum = "0", format = "phone")]
    age: u8,
    #[elicit(pattern = "(unclosed", max_length = 4, default = 5)]
    code: String,
    api_key: String,
    #[elicit(rename = "name", minimum = 1, min_items = 1)]
    nickname: String,
    #[elicit(skip, title = "Cache")]
    cache: Vec<u8>,
}

#[derive(Elicit)]
enum Color {
    Red,
    Other(String),
    #[elicit(colour = "red")]
    Crimson,
}

fn main() {}
