use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(maximum = 300)]
    small: u8,
}

fn main() {}
