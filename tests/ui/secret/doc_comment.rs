use elicit::Elicit;

#[derive(Elicit)]
struct Payment {
    /// The card's CVV
    code: String,
}

fn main() {}
