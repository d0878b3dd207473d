use elicit::Elicit;

#[derive(Elicit)]
#[elicit]
struct Form {
    #[elicit = "name"]
    name: String,
    #[elicit(title "Age")]
    age: u8,
}

fn main() {}
