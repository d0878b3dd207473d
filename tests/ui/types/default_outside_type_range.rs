use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(default = 300)]
    small: u8,
}

fn main() {}
