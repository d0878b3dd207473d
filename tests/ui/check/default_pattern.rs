use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(pattern = "^[0-9]+$", default = "12a")]
    digits: String,
}

fn main() {}
