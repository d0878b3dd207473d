use elicit::Elicit;

#[derive(Elicit)]
#[elicit(crate = "not a path")]
struct Form {
    name: String,
}

fn main() {}
