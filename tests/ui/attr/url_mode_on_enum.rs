use elicit::Elicit;

// `url_mode` marks a whole form for the agent's own page; a select is only a field.
#[derive(Elicit)]
#[elicit(url_mode)]
enum Color {
    Red,
}

fn main() {}
