use elicit::Elicit;

#[derive(Elicit)]
#[elicit(titel = "Form")]
struct Form {
    name: String,
}

fn main() {}
