use elicit::Elicit;

#[derive(Elicit)]
enum Color {
    #[elicit(label = "Red")]
    Red,
}

fn main() {}
