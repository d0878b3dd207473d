use elicit::Elicit;

#[derive(Elicit)]
struct Address {
    city: String,
}

#[derive(Elicit)]
struct Form {
    address: Address,
}

fn main() {}
