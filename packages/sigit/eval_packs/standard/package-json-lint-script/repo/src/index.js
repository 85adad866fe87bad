console.log("widgets");
