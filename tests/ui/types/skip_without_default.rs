use elicit::Elicit;

struct Connection;

#[derive(Elicit)]
struct Form {
    name: String,
    #[elicit(skip)]
    connection: Connection,
}

fn main() {}
