use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(maximum = 10u8)]
    age: u8,
}

fn main() {}
