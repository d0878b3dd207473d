use elicit::Elicit;

#[derive(Elicit)]
#[elicit(rename_all = "lowercase")]
enum Color {
    Red,
    #[elicit(rename = "red")]
    Crimson,
}

fn main() {}
