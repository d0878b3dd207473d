use elicit::Elicit;

#[derive(Elicit)]
enum Answer {
    Yes,
    Other(String),
    Detailed { reason: String },
}

fn main() {}
