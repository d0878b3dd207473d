use elicit::Elicit;

#[derive(Elicit)]
struct Form {
    #[elicit(minimum = 1, maximum = 5, default = 6)]
    passes: u8,
    #[elicit(minimum = 0.5, default = 0.25)]
    ratio: f64,
}

fn main() {}
