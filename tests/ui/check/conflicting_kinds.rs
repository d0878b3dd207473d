use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(min_length = 1, minimum = 0, max_items = 2)]
    name: String,
}

fn main() {}
