use elicit::Elicit;

#[derive(Elicit, serde::Deserialize)]
enum Color {
    Red,
    #[serde(skip)]
    Green,
}

fn main() {}
