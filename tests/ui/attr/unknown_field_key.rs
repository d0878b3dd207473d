use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(minimun = 1)]
    age: u8,
    #[elicit(placeholder = "you")]
    name: String,
}

fn main() {}
