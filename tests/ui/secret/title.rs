use elicit::Elicit;

#[derive(Elicit)]
struct Setup {
    #[elicit(title = "Your OpenAI API key")]
    key: String,
}

fn main() {}
