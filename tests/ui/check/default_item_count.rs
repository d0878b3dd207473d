use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(min_items = 2, default = ["red"])]
    few: Vec<Color>,
    #[elicit(max_items = 1, default = ["red", "red"])]
    many: Vec<Color>,
}

#[derive(Elicit)]
#[elicit(rename_all = "lowercase")]
enum Color {
    Red,
}

fn main() {}
