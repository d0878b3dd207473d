use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(min_length = 5, max_length = 3)]
    name: String,
    #[elicit(minimum = 10, maximum = 2.5)]
    ratio: f64,
    #[elicit(min_items = 3, max_items = 1)]
    colors: Vec<Color>,
}

#[derive(Elicit)]
enum Color {
    Red,
}

fn main() {}
