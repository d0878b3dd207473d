use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(max_items = 2)]
    color: Color,
}

#[derive(Elicit)]
enum Color {
    Red,
}

fn main() {}
