use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(minimum = 0.5)]
    count: u32,
}

fn main() {}
