use elicit::Elicit;

#[derive(Elicit)]
#[elicit(title = "Color", deny_unknown_fields)]
enum Color {
    Red,
}

fn main() {}
