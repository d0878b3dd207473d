use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(default = "Purple")]
    color: Color,
}

#[derive(Elicit)]
enum Color {
    Red,
    Green,
}

fn main() {}
