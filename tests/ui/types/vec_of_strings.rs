use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    tags: Vec<String>,
}

fn main() {}
