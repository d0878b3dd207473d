use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(default = "yes")]
    agree: bool,
    #[elicit(default = true)]
    name: String,
    #[elicit(default = 3)]
    color: Color,
}

#[derive(Elicit)]
enum Color {
    Red,
}

fn main() {}
