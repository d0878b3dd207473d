use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(max_length = 10, default = 5)]
    name: String,
    #[elicit(minimum = 0, default = "zero")]
    count: u8,
    #[elicit(min_items = 1, default = "red")]
    colors: Vec<Color>,
}

#[derive(Elicit)]
enum Color {
    #[elicit(rename = "red")]
    Red,
}

fn main() {}
