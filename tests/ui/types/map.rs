use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    labels: std::collections::HashMap<String, String>,
}

fn main() {}
